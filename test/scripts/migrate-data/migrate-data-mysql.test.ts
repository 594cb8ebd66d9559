// `npm run migrate-data` from MySQL: a database with rows in every table, made through the app on
// MySQL, moved to SQLite and back, compared row for row, then served (the rest: migrate-data.test.ts).
import t from 'tap'
import { moveAlong } from '../../helpers/migrate-data.js'

if (process.env.TEST_MYSQL_URL) moveAlong(t, ['mysql', 'sqlite', 'mysql'])
else
  t.test(
    'from mysql to sqlite and back',
    { skip: 'TEST_MYSQL_URL is not set: the MySQL leg did not run' },
    async () => {},
  )
