// A DRA driver written with @grpc/grpc-js against our .proto files registers
// with `dralloc node` through the registry directory and is driven by it: a
// pod with a claim reaches Running after NodePrepareResources, and deleting
// it calls NodeUnprepareResources. A driver advertising no DRA version we
// support is told so in NotifyRegistrationStatus.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Api, Child, eventually, podsPath, tempDir } from './harness.mjs';
import { TestDriver } from './test_driver.mjs';

const driverName = 'js.example.com';
const node = 'js-node';
let root, server, agent, api;
const drivers = [];

before(async () => {
  root = tempDir('agent-wire');
  server = new Child('serve', ['serve', '--listen', '127.0.0.1:0', '--storage', 'memory:'], root);
  api = new Api(await server.waitFor(/listening on (http:\/\/[0-9.:]+)/));
  agent = new Child('node', ['node', '--node-name', node, '--server', api.server, '--root', root], root);
  await agent.waitFor(/^ready$/m);
});

after(async () => {
  for (const driver of drivers) await driver.stop();
  await agent?.stop();
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

// Starts a grpc-js driver registering `name` (TestDriver options in
// `options`); returns it once the agent has notified its status.
async function startDriver(name, options = {}) {
  const driver = new TestDriver({
    name, pool: node, cdiDir: path.join(root, 'cdi'),
    registrySocket: path.join(root, 'plugins_registry', `${name}-reg.sock`),
    endpoint: path.join(root, 'plugins', name, 'dra.sock'), ...options,
  });
  drivers.push(driver);
  await driver.start();
  await eventually(`a registration status for ${name}`, () => driver.statuses.length > 0);
  return driver;
}

test('a driver with no supported DRA version is rejected with a reason', async () => {
  const driver = await startDriver('old.example.com', { versions: ['v1alpha2.Node'] });
  const [status] = driver.statuses;
  assert.equal(status.plugin_registered, false);
  assert.match(status.error, /version/i);
});

test('our node agent prepares through the grpc-js driver and the pod runs', async () => {
  const driver = await startDriver(driverName);
  const [status] = driver.statuses;
  assert.equal(status.plugin_registered, true, status.error);

  await api.post('/apis/resource.k8s.io/v1/deviceclasses', {
    apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: driverName },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driverName}"` } }] },
  });
  await api.post('/apis/resource.k8s.io/v1/resourceslices', {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: `${node}-js` },
    spec: { driver: driverName, nodeName: node, pool: { name: node, generation: 1, resourceSliceCount: 1 },
      devices: [{ name: 'dev-0' }] },
  });
  await api.post('/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates', {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'js-dev' },
    spec: { spec: { devices: { requests: [{ name: 'dev', exactly: { deviceClassName: driverName } }] } } },
  });
  await api.post(podsPath, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'js-pod' },
    spec: {
      containers: [{ name: 'ctr', image: 'busybox', resources: { claims: [{ name: 'dev' }] } }],
      resourceClaims: [{ name: 'dev', resourceClaimTemplateName: 'js-dev' }],
    },
  });
  const pod = await eventually('js-pod Running', async () => {
    const p = await api.get(`${podsPath}/js-pod`);
    return p.status?.phase === 'Running' ? p : undefined;
  }, 30000);
  assert.equal(pod.spec.nodeName, node);
  assert.equal(driver.calls.prepare.length, 1);
  const [claim] = driver.calls.prepare;
  assert.equal(claim.namespace, 'default');
  assert.equal(claim.name, pod.status.resourceClaimStatuses[0].resourceClaimName);

  await api.delete(`${podsPath}/js-pod`);
  await eventually('NodeUnprepareResources for the claim',
    () => driver.calls.unprepare.find((c) => c.uid === claim.uid && c.done), 30000);
  assert.equal(fs.existsSync(driver.specPath(claim.uid)), false);
});
