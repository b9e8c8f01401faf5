// The service's full REST contract test (contract.test.js), run on the PostgreSQL store:
// the same seeded script, every answer compared with the package's.
process.env.LEDGER_TEST_STORE = 'postgres';
await import('./contract.test.js');
