-- Checkpoint retention: when each content was kept, so that retention can prune by age
-- the contents no change names (with the changes' own times for the others).
-- Contents kept before this migration count as kept when it ran.
ALTER TABLE checkpoint_contents ADD COLUMN kept_at TIMESTAMPTZ NOT NULL DEFAULT now();
