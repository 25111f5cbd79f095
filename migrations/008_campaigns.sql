-- Campaigns (docs/campaigns.md): what segments read about people, the campaigns and their recipients.
--
-- person_tags: tags flows set (`tag:` / `untag:`), per conversation, across sessions.
-- people_left: the person stopped the bot or removed the dialog, at left_at. They count as gone while no
--   session of theirs moved after it (a person who comes back and talks to the bot again is reachable).
--   Sessions stopped before this table existed count as left (the conservative reading).
-- campaigns: one row per campaign; spec is the campaign as JSON (flow, with, segment, rate, quiet hours, cap).
-- campaign_recipients: the segment snapshotted at start, one row per person; status queued → released →
--   sent | failed | skipped (reason). `not_before`: when the runner may release it (quiet hours move it).
CREATE TABLE person_tags (
  conversation_key TEXT    NOT NULL,
  tag              TEXT    NOT NULL,
  tagged_at        INTEGER NOT NULL,
  PRIMARY KEY (conversation_key, tag)
) STRICT, WITHOUT ROWID;
CREATE INDEX person_tags_tag ON person_tags (tag);

CREATE TABLE people_left (
  conversation_key TEXT    PRIMARY KEY,
  reason           TEXT    NOT NULL,
  left_at          INTEGER NOT NULL
) STRICT;
INSERT INTO people_left (conversation_key, reason, left_at)
  SELECT conversation_key, 'session stopped before campaigns existed', updated_at FROM sessions WHERE status = 'stopped';

CREATE TABLE campaigns (
  id          TEXT    PRIMARY KEY,
  name        TEXT    NOT NULL,
  flow_id     TEXT    NOT NULL,
  spec        TEXT    NOT NULL,
  status      TEXT    NOT NULL CHECK (status IN ('running', 'paused', 'cancelled', 'done')),
  recipients  INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  start_at    INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE campaign_recipients (
  campaign_id      TEXT    NOT NULL,
  conversation_key TEXT    NOT NULL,
  user_id          INTEGER,
  chat_id          INTEGER,
  locale           TEXT,
  time_zone        TEXT,
  status           TEXT    NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'released', 'sent', 'failed', 'skipped')),
  reason           TEXT,
  not_before       INTEGER NOT NULL,
  released_at      INTEGER,
  settled_at       INTEGER,
  PRIMARY KEY (campaign_id, conversation_key)
) STRICT;
CREATE INDEX campaign_recipients_due ON campaign_recipients (campaign_id, not_before, conversation_key) WHERE status = 'queued';
CREATE INDEX campaign_recipients_released ON campaign_recipients (campaign_id) WHERE status = 'released';
CREATE INDEX campaign_recipients_person ON campaign_recipients (conversation_key, released_at)
  WHERE released_at IS NOT NULL;
