-- Campaigns (docs/campaigns.md; the SQLite 008 has the same tables): tags flows set, people who stopped the
-- bot or removed the dialog, campaigns and their recipients; and three kinds of write of the batch
-- (`tags`, `left`, `recipient`: store/write-plan.ts), applied by botflow_apply_person, which
-- botflow_apply_ops (otherwise as in 005) calls for them.
CREATE TABLE person_tags (
  conversation_key text   NOT NULL,
  tag              text   NOT NULL,
  tagged_at        bigint NOT NULL,
  PRIMARY KEY (conversation_key, tag)
);
CREATE INDEX person_tags_tag ON person_tags (tag);

CREATE TABLE people_left (
  conversation_key text   PRIMARY KEY,
  reason           text   NOT NULL,
  left_at          bigint NOT NULL
);
INSERT INTO people_left (conversation_key, reason, left_at)
  SELECT conversation_key, 'session stopped before campaigns existed', updated_at FROM sessions WHERE status = 'stopped';

CREATE TABLE campaigns (
  id          text    PRIMARY KEY,
  name        text    NOT NULL,
  flow_id     text    NOT NULL,
  spec        text    NOT NULL,
  status      text    NOT NULL CHECK (status IN ('running', 'paused', 'cancelled', 'done')),
  recipients  integer NOT NULL,
  created_at  bigint  NOT NULL,
  start_at    bigint  NOT NULL,
  updated_at  bigint  NOT NULL
);

CREATE TABLE campaign_recipients (
  campaign_id      text    NOT NULL,
  conversation_key text    NOT NULL,
  user_id          bigint,
  chat_id          bigint,
  locale           text,
  time_zone        text,
  status           text    NOT NULL DEFAULT 'queued'
                   CHECK (status IN ('queued', 'released', 'sent', 'failed', 'skipped')),
  reason           text,
  not_before       bigint  NOT NULL,
  released_at      bigint,
  settled_at       bigint,
  PRIMARY KEY (campaign_id, conversation_key)
);
CREATE INDEX campaign_recipients_due ON campaign_recipients (campaign_id, not_before, conversation_key) WHERE status = 'queued';
CREATE INDEX campaign_recipients_released ON campaign_recipients (campaign_id) WHERE status = 'released';
CREATE INDEX campaign_recipients_person ON campaign_recipients (conversation_key, released_at)
  WHERE released_at IS NOT NULL;

-- The person-level writes of a planned event: botflow_apply_person (functions/apply_person.sql).
-- botflow:functions

