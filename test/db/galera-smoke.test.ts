import t from 'tap'
import { galeraMissing, startGalera } from '../helpers/galera.js'

t.test(
  'a 3-node cluster starts, replicates, loses a node and takes it back',
  { skip: galeraMissing(), timeout: 300_000 },
  async (t) => {
    const started = Date.now()
    const cluster = await startGalera(t)
    t.comment(`started in ${Date.now() - started} ms`)
    await cluster.query(0, 'CREATE DATABASE smoke')
    await cluster.query(1, 'CREATE TABLE smoke.t (id INT PRIMARY KEY, v INT)')
    await cluster.query(2, 'INSERT INTO smoke.t VALUES (1, 1)')
    t.same((await cluster.query(0, 'SELECT v FROM smoke.t WHERE id = 1'))[0]?.v, 1)
    await cluster.kill(2)
    await cluster.query(0, 'INSERT INTO smoke.t VALUES (2, 2)')
    const restarted = Date.now()
    await cluster.start(2)
    t.comment(`rejoined in ${Date.now() - restarted} ms`)
    t.same((await cluster.query(2, 'SELECT COUNT(*) AS n FROM smoke.t'))[0]?.n, 2)
  },
)
