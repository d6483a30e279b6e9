-- Users' roles and limits: an admin sees every user's usage (`users add NAME --admin`);
-- a user's own monthly budget in picos (10^-12 of the price currency) overrides
-- agent.json budgets.perUserMonthly for them (`users set NAME --budget-monthly N`).
ALTER TABLE users ADD COLUMN admin BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN budget_monthly_picos BIGINT NULL CHECK (budget_monthly_picos >= 0);
