-- Users' roles and limits: an admin sees every user's usage (`users add NAME --admin`);
-- a user's own monthly budget in picos (10^-12 of the price currency) overrides
-- agent.json budgets.perUserMonthly for them (`users set NAME --budget-monthly N`).
ALTER TABLE users ADD COLUMN admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1));
ALTER TABLE users ADD COLUMN budget_monthly_picos INTEGER NULL CHECK (budget_monthly_picos >= 0);
