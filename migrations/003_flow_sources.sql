-- What each flow version was built from (a JSON text the flows module can rebuild it from), so that a
-- restart with a changed flow file can still run sessions pinned to the old version. NULL for flows
-- written by hand in TypeScript, and for versions recorded before this migration.
ALTER TABLE flow_versions ADD COLUMN source TEXT;
