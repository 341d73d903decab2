// Node faults around drivers, each shown with separate processes and real
// unix sockets: `dralloc serve`, one `dralloc node` per test (its own node,
// root and log), `dralloc driver example` where a real driver is needed, and
// DRA drivers written with @grpc/grpc-js (test_driver.mjs) in this process.
//   - two drivers registering the same name: the newest serves, the other
//     takes over when it goes; two example drivers with one name and one
//     registry dir: the second replaces the first's socket;
//   - a stale registration socket (nothing listens): logged, retried with
//     backoff, other drivers unaffected, a driver later started on that
//     path registers;
//   - a registration naming an unsupported version or type: rejected with a
//     reason, logged; a driver speaking only v1beta1 is driven over v1beta1;
//   - a driver returning a CDI ID no spec defines: the pod does not start, a
//     Warning Event names the ID, the pod starts once a spec defines it;
//   - the node agent killed with -9 during an unprepare: after a restart the
//     claim is unprepared again, the checkpoint ends empty, the pod goes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Api, Child, claimsPath, dralloc, eventually, podsPath, tempDir } from './harness.mjs';
import { TestDriver } from './test_driver.mjs';

let root, server, api;
const children = [];
const drivers = [];

before(async () => {
  root = tempDir('agent-faults');
  server = new Child('serve', ['serve', '--listen', '127.0.0.1:0', '--storage', 'memory:'], root);
  api = new Api(await server.waitFor(/listening on (http:\/\/[0-9.:]+)/));
});

after(async () => {
  for (const driver of drivers) await driver.stop();
  for (const child of children.reverse()) await child.stop();
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

// A node of its own for one test: `dralloc node` under ROOT/<node>.
class Node {
  constructor(name) {
    this.name = name;
    this.dir = path.join(root, name);
    this.registry = path.join(this.dir, 'plugins_registry');
    this.cdiDir = path.join(this.dir, 'cdi');
  }
  async startAgent() {
    this.agent = new Child(`agent-${this.name}`, ['node', '--node-name', this.name,
      '--server', api.server, '--root', this.dir, '--backoff-max', '1s'], root);
    children.push(this.agent);
    await this.agent.waitFor(/^ready$/m);
    return this.agent;
  }
  // A grpc-js driver on this node; `tag` names its sockets.
  driver(name, tag, options = {}) {
    const driver = new TestDriver({
      name, pool: this.name, cdiDir: this.cdiDir,
      registrySocket: path.join(this.registry, `${tag}-reg.sock`),
      endpoint: path.join(this.dir, 'plugins', tag, 'dra.sock'), ...options,
    });
    drivers.push(driver);
    return driver;
  }
  exampleDriver(gpus, tag = 'example-driver', extra = []) {
    const child = new Child(`${tag}-${this.name}`, ['driver', 'example', '--node-name', this.name,
      '--server', api.server, '--root', this.dir, '--gpus', String(gpus), ...extra], root);
    children.push(child);
    return child;
  }
  // The claims the agent's checkpoint records (snapshot + journal).
  checkpointClaims() {
    const out = spawnSync(dralloc, ['node-checkpoint', '--root', this.dir, '-o', 'json'],
      { encoding: 'utf8' });
    assert.equal(out.status, 0, `node-checkpoint: ${out.stderr}`);
    return JSON.parse(out.stdout).claims ?? [];
  }
  // Lines of the agent's output (since its last start) matching `pattern`.
  agentLines(pattern) {
    return this.agent.output.split('\n').filter((line) => pattern.test(line));
  }
}

async function startNode(name) {
  const node = new Node(name);
  await node.startAgent();
  return node;
}

// A DeviceClass for `driver`, a template asking for one of its devices and,
// unless the driver publishes them itself, a ResourceSlice with `devices`
// on `node`.
async function offerDevices(driver, node, devices = 0) {
  await api.post('/apis/resource.k8s.io/v1/deviceclasses', {
    apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: driver },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
  });
  await api.post('/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates', {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: driver },
    spec: { spec: { devices: { requests: [{ name: 'dev', exactly: { deviceClassName: driver } }] } } },
  });
  if (devices === 0) return;
  await api.post('/apis/resource.k8s.io/v1/resourceslices', {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: `${node}-${driver}` },
    spec: { driver, nodeName: node, pool: { name: node, generation: 1, resourceSliceCount: 1 },
      devices: Array.from({ length: devices }, (_, i) => ({ name: `dev-${i}` })) },
  });
}

async function createPod(name, template) {
  await api.post(podsPath, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      containers: [{ name: 'ctr', image: 'busybox', resources: { claims: [{ name: 'dev' }] } }],
      resourceClaims: [{ name: 'dev', resourceClaimTemplateName: template }],
    },
  });
}

const podOf = (name) => api.get(`${podsPath}/${name}`);

async function waitRunning(name, timeoutMs = 20000) {
  return eventually(`pod ${name} Running`, async () => {
    const pod = await podOf(name);
    return pod.status?.phase === 'Running' ? pod : undefined;
  }, timeoutMs);
}

async function waitGone(name, timeoutMs = 20000) {
  await eventually(`pod ${name} removed`, async () => {
    try {
      await podOf(name);
      return false;
    } catch (error) {
      if (error.code === 404) return true;
      throw error;
    }
  }, timeoutMs);
}

// The UID of the claim made for the pod from its template (waits for it).
async function claimUidOf(podName) {
  const claimName = await eventually(`a claim for ${podName}`, async () =>
    (await podOf(podName)).status?.resourceClaimStatuses?.[0]?.resourceClaimName);
  return (await api.get(`${claimsPath}/${claimName}`)).metadata.uid;
}

async function warningsOf(podName) {
  const events = await api.get('/api/v1/namespaces/default/events');
  return events.items.filter((e) => e.involvedObject?.name === podName && e.type === 'Warning');
}

// A unix socket file nothing listens on: bound by a process that is gone.
function staleSocket(socketPath) {
  fs.mkdirSync(path.dirname(socketPath), { recursive: true });
  const made = spawnSync('python3', ['-c',
    'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])', socketPath]);
  assert.equal(made.status, 0, `python3 could not bind ${socketPath}: ${made.stderr}`);
  assert.ok(fs.statSync(socketPath).isSocket());
}

test('two drivers with the same name: the newest serves, the other takes over when it goes', async () => {
  const node = await startNode('dup-node');
  const example = node.exampleDriver(4);
  await example.waitFor(/^ready$/m);
  await node.agent.waitFor(/registered DRA driver gpu\.example\.com .*gpu\.example\.com-reg\.sock/);
  await offerDevices('gpu.example.com', node.name);
  const duplicate = node.driver('gpu.example.com', 'gpu.example.com-js');
  await duplicate.start();
  const [status] = await eventually('registration of the second gpu.example.com', () =>
    duplicate.statuses[0] && duplicate.statuses);
  assert.equal(status.plugin_registered, true, status.error);
  // The agent logs each registration of the name, naming its socket.
  await node.agent.waitFor(/registered DRA driver gpu\.example\.com .*gpu\.example\.com-js-reg\.sock/);
  assert.equal(node.agentLines(/registered DRA driver gpu\.example\.com /).length, 2);

  // The newest registration (the grpc-js one) serves.
  await createPod('dup-1', 'gpu.example.com');
  await waitRunning('dup-1');
  const first = await claimUidOf('dup-1');
  assert.ok(duplicate.calls.prepare.some((c) => c.uid === first), 'the newest registration prepared dup-1');

  // It goes: the example driver serves again, and the name stays registered.
  await duplicate.stop();
  await createPod('dup-2', 'gpu.example.com');
  await waitRunning('dup-2');
  const second = await claimUidOf('dup-2');
  assert.ok(!duplicate.calls.prepare.some((c) => c.uid === second));
  const exampleSpecs = fs.readdirSync(node.cdiDir).filter((f) => f.includes(second) && !f.startsWith('js_'));
  assert.equal(exampleSpecs.length, 1, `the example driver wrote the CDI spec of ${second}`);
  assert.deepEqual(node.agentLines(/DRA driver gpu\.example\.com unregistered/), []);

  // Back again (newest), then the example driver exits: the grpc-js one
  // keeps the name registered and serving.
  await duplicate.start();
  await eventually('re-registration', () => duplicate.statuses.length === 2);
  await example.stop();
  await eventually('the example driver\'s socket gone', () =>
    !fs.existsSync(path.join(node.registry, 'gpu.example.com-reg.sock')));
  await createPod('dup-3', 'gpu.example.com');
  await waitRunning('dup-3');
  const third = await claimUidOf('dup-3');
  assert.ok(duplicate.calls.prepare.some((c) => c.uid === third), 'the remaining registration prepared dup-3');
  assert.deepEqual(node.agentLines(/DRA driver gpu\.example\.com unregistered/), []);
  assert.ok(node.agent.running, 'the agent is still running');
});

test('two example drivers with one name and one registry dir: the second takes the socket over', async () => {
  // `dralloc driver example` has no flag for distinct socket names (a
  // rolling-update UID), so a second instance replaces the first's
  // registration socket, as upstream plugins without RollingUpdate do.
  const node = await startNode('takeover-node');
  const name = 'takeover.example.com';
  const flags = (instance) => ['--driver-name', name, '--plugins-dir', path.join(node.dir, `plugins-${instance}`),
    '--state-dir', path.join(node.dir, `driver-state-${instance}`)];
  const first = node.exampleDriver(2, 'first', flags('first'));
  await first.waitFor(/^ready$/m);
  await node.agent.waitFor(/registered DRA driver takeover\.example\.com .*plugins-first/);
  await offerDevices(name, node.name);
  const second = node.exampleDriver(2, 'second', flags('second'));
  await second.waitFor(/^ready$/m);
  await second.waitFor(/removing stale socket .*takeover\.example\.com-reg\.sock/);
  // The agent sees the socket replaced: the first registration goes, the
  // second comes (within the wiping delay, so no slice is deleted).
  await node.agent.waitFor(/DRA driver takeover\.example\.com unregistered/);
  await node.agent.waitFor(/registered DRA driver takeover\.example\.com .*plugins-second/);
  await createPod('takeover-1', name);
  await waitRunning('takeover-1');
  const claim = (await podOf('takeover-1')).status.resourceClaimStatuses[0].resourceClaimName;
  await second.waitFor(new RegExp(`prepared resourceclaim default/${claim} `));
  assert.ok(!first.output.includes(claim), 'the replaced instance was not asked');
  assert.ok(first.running && node.agent.running);
});

test('a stale registration socket is logged and retried; others are unaffected; a driver on that path registers', async () => {
  // One left before the agent starts (found by its scan), one appearing
  // while it runs (found by inotify).
  const node = new Node('stale-node');
  staleSocket(path.join(node.registry, 'leftover.example.com-reg.sock'));
  await node.startAgent();
  await node.agent.waitFor(/plugin socket .*leftover\.example\.com-reg\.sock: GetInfo: .*\(will retry\)/);
  staleSocket(path.join(node.registry, 'stale.example.com-reg.sock'));
  const stalePattern = /plugin socket .*stale\.example\.com-reg\.sock: GetInfo: .*\(will retry\)/;
  await node.agent.waitFor(stalePattern);
  // Retried with backoff: several attempts, not a busy loop.
  await eventually('a retry of the stale socket', () => node.agentLines(stalePattern).length >= 2, 5000);

  // Another driver registers and serves meanwhile.
  const other = node.driver('other.example.com', 'other.example.com');
  await other.start();
  await offerDevices('other.example.com', node.name, 1);
  const [status] = await eventually('registration of other.example.com', () => other.statuses[0] && other.statuses);
  assert.equal(status.plugin_registered, true, status.error);
  await createPod('beside-stale', 'other.example.com');
  await waitRunning('beside-stale');

  const attempts = node.agentLines(stalePattern).length;
  assert.ok(attempts < 20, `${attempts} attempts on the stale socket: no backoff?`);
  assert.ok(node.agent.running, 'the agent is still running');

  // A driver starting on that path (it removes the stale file) registers.
  const revived = node.driver('stale.example.com', 'stale.example.com');
  await revived.start();
  const [revivedStatus] = await eventually('registration on the formerly stale path', () =>
    revived.statuses[0] && revived.statuses);
  assert.equal(revivedStatus.plugin_registered, true, revivedStatus.error);
  await node.agent.waitFor(/registered DRA driver stale\.example\.com /);
});

test('a registration naming an unsupported version or type is rejected and logged; a v1beta1-only driver is driven over v1beta1', async () => {
  const node = await startNode('version-node');
  const future = node.driver('future.example.com', 'future.example.com', { versions: ['v2.DRAPlugin'] });
  const csi = node.driver('csi.example.com', 'csi.example.com', { type: 'CSIPlugin' });
  await future.start();
  await csi.start();
  const [futureStatus] = await eventually('a status for future.example.com', () => future.statuses[0] && future.statuses);
  assert.equal(futureStatus.plugin_registered, false);
  assert.match(futureStatus.error, /no supported DRAPlugin version in \[v2\.DRAPlugin\]/);
  const [csiStatus] = await eventually('a status for csi.example.com', () => csi.statuses[0] && csi.statuses);
  assert.equal(csiStatus.plugin_registered, false);
  assert.match(csiStatus.error, /plugin type "CSIPlugin" is not supported/);
  await node.agent.waitFor(/future\.example\.com-reg\.sock: registration rejected: .*v2\.DRAPlugin/);
  await node.agent.waitFor(/csi\.example\.com-reg\.sock: registration rejected: .*CSIPlugin/);
  // Rejected for good: not retried.
  assert.equal(future.statuses.length, 1);

  const beta = node.driver('beta.example.com', 'beta.example.com', { versions: ['v1beta1.DRAPlugin'] });
  await beta.start();
  await offerDevices('beta.example.com', node.name, 1);
  const [betaStatus] = await eventually('a status for beta.example.com', () => beta.statuses[0] && beta.statuses);
  assert.equal(betaStatus.plugin_registered, true, betaStatus.error);
  await createPod('beta-pod', 'beta.example.com');
  await waitRunning('beta-pod');
  assert.deepEqual(beta.calls.prepare.map((c) => c.version), ['v1beta1']);
  assert.ok(node.agent.running, 'the agent is still running');
});

test('a CDI ID that no spec defines: the pod waits with a Warning Event naming it, and starts once a spec defines it', async () => {
  const node = await startNode('cdi-node');
  const driver = node.driver('nospec.example.com', 'nospec.example.com', { writeSpecs: false });
  await driver.start();
  await offerDevices('nospec.example.com', node.name, 1);
  await createPod('nospec-pod', 'nospec.example.com');
  const uid = await claimUidOf('nospec-pod');
  const id = driver.cdiId(uid);
  // (An earlier Warning may say the claim is not allocated yet: the agent
  // can see the pod bound before it sees the claim's allocation.)
  const event = await eventually(`a Warning Event naming ${id}`, async () =>
    (await warningsOf('nospec-pod')).find((e) => e.message.includes(id)));
  assert.equal(event.reason, 'FailedPrepareDynamicResources');
  assert.match(event.message, /unresolvable CDI devices/);
  assert.notEqual((await podOf('nospec-pod')).status?.phase, 'Running');

  // Retried with backoff (--backoff-max 1s): the pod starts once the spec
  // appears, without asking the driver again.
  driver.writeSpec(uid);
  await waitRunning('nospec-pod');
  assert.equal(driver.calls.prepare.length, 1);
});

test('the agent killed with -9 during an unprepare: the claim is unprepared after a restart and the pod goes', async () => {
  const node = await startNode('unprep-node');
  const driver = node.driver('slow.example.com', 'slow.example.com', { unprepareDelayMs: 5000 });
  await driver.start();
  await offerDevices('slow.example.com', node.name, 1);
  await createPod('slow-pod', 'slow.example.com');
  await waitRunning('slow-pod');
  const uid = await claimUidOf('slow-pod');
  const claimName = (await podOf('slow-pod')).status.resourceClaimStatuses[0].resourceClaimName;
  assert.ok(fs.existsSync(driver.specPath(uid)));
  assert.deepEqual(node.checkpointClaims().map((c) => c.uid), [uid]);

  await api.delete(`${podsPath}/slow-pod`);
  const [inFlight] = await eventually('NodeUnprepareResources in flight', () =>
    driver.calls.unprepare.length > 0 && driver.calls.unprepare);
  assert.equal(inFlight.uid, uid);
  await node.agent.kill9();
  await eventually('the driver to see the call cancelled', () => inFlight.cancelled, 5000);
  driver.unprepareDelayMs = 0;
  // Nothing was undone: the claim is still prepared and recorded, and the
  // pod is still there (it goes only after its claims are unprepared).
  assert.ok(fs.existsSync(driver.specPath(uid)));
  assert.deepEqual(node.checkpointClaims().map((c) => c.uid), [uid]);
  assert.ok((await podOf('slow-pod')).metadata.deletionTimestamp);

  await node.startAgent();
  await waitGone('slow-pod');
  const done = driver.calls.unprepare.filter((c) => c.uid === uid && c.done);
  assert.equal(done.length, 1, 'the restarted agent unprepared the claim once');
  assert.equal(driver.prepared.size, 0, 'no device stays prepared');
  assert.equal(fs.existsSync(driver.specPath(uid)), false, 'the CDI spec is gone');
  await eventually('an empty checkpoint', () => node.checkpointClaims().length === 0, 5000);
  // The claim controller then frees the device: the pod's claim goes.
  await eventually(`claim ${claimName} deallocated or deleted`, async () => {
    try {
      return !(await api.get(`${claimsPath}/${claimName}`)).status?.allocation;
    } catch (error) {
      if (error.code === 404) return true;
      throw error;
    }
  });
});
