//! Pure domain rules: functions without I/O, each with table-driven unit tests.
