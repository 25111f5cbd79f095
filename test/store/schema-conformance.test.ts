// The engine's conformance suite (test/engine/conformance.test.ts) once more on PostgreSQL, with the bot's
// database a schema of its own on a shared pool (issue 39: a schema per bot): every statement, function,
// notification channel and lease of the engine proven per schema. The suite's SQLite run is not repeated.
process.env.BOTFLOW_TEST_PG_SCHEMA = 'bot_conformance';
await import('../engine/conformance.test.ts');
