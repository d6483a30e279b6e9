//! The direct connection's statement splitting and scripts (rows of every statement,
//! rollback on failure).

use super::*;

#[test]
fn statements_split_at_semicolons_outside_quotes() {
    let cases: [(&str, &[&str]); 4] = [
        ("SELECT 1", &["SELECT 1"]),
        ("BEGIN; SELECT 1 ;COMMIT;", &["BEGIN", "SELECT 1", "COMMIT"]),
        (
            "SELECT 'a;b'; SELECT \"c;d\"",
            &["SELECT 'a;b'", "SELECT \"c;d\""],
        ),
        ("SELECT 'it''s; fine'; ", &["SELECT 'it''s; fine'"]),
    ];
    for (sql, expected) in cases {
        let got: Vec<&str> = statements(sql).collect();
        assert_eq!(got, expected, "{sql}");
    }
}

fn memory() -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        .unwrap();
    conn
}

#[test]
fn a_script_returns_the_rows_of_all_its_statements() {
    let mut conn = memory();
    let rows = run_script(
        &mut conn,
        "BEGIN IMMEDIATE; INSERT INTO t (name) VALUES (?1) RETURNING 'a' AS tag, id; \
         SELECT 'b' AS tag, count(*) AS n, NULL AS none FROM t; COMMIT",
        &[&"x"],
    )
    .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].text_at(0).unwrap(), "a");
    assert_eq!(rows[0].int_at(1).unwrap(), 1);
    assert_eq!(rows[1].opt_int("n").unwrap(), Some(1));
    assert_eq!(rows[1].opt_text("none").unwrap(), None);
    assert!(rows[1].opt_text("n").is_err(), "an integer is not text");
    assert!(rows[1].opt_int("missing").is_err());
    assert!(conn.is_autocommit());
}

#[test]
fn a_failing_statement_rolls_the_script_back() {
    let mut conn = memory();
    conn.execute("INSERT INTO t (name) VALUES ('taken')", [])
        .unwrap();
    let err = run_script(
        &mut conn,
        "BEGIN IMMEDIATE; INSERT INTO t (name) VALUES ('new'); \
         INSERT INTO t (name) VALUES (?1); COMMIT",
        &[&"taken"],
    )
    .unwrap_err();
    assert!(err.is_unique_violation(), "{err}");
    assert!(conn.is_autocommit(), "rolled back");
    let n: i64 = conn
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1, "the first insert was rolled back with it");
}
