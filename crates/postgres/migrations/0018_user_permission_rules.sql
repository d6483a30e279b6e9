-- Users' own permission rules (`users set NAME --deny RULE --ask RULE`, `--clear-rules`),
-- decided with the home's agent.json rules for the user's turns; they only narrow them,
-- so there are no allow rules. Each a JSON array of rule texts, `[]` for none.
ALTER TABLE users ADD COLUMN deny_rules TEXT NOT NULL DEFAULT '[]';
ALTER TABLE users ADD COLUMN ask_rules TEXT NOT NULL DEFAULT '[]';
