// A kubelet written with @grpc/grpc-js against our .proto files drives
// `dralloc driver example`: registration, NodePrepareResources and
// NodeUnprepareResources over v1 and v1beta1, per-claim errors.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import grpc from '@grpc/grpc-js';
import {
  Api, Child, call, claimsPath, draApi, eventually, registrationApi, tempDir, unixTarget,
} from './harness.mjs';

const driverName = 'gpu.example.com';
const node = 'wire-node';
let root, server, driver, api;

before(async () => {
  root = tempDir('driver-wire');
  server = new Child('apiserver', ['apiserver', '--listen', '127.0.0.1:0', '--storage', 'memory:'], root);
  api = new Api(await server.waitFor(/listening on (http:\/\/[0-9.:]+)/));
  driver = new Child('driver', ['driver', 'example', '--node-name', node, '--server', api.server,
    '--root', root, '--gpus', '2'], root);
  await driver.waitFor(/^ready$/m);
});

after(async () => {
  await driver?.stop();
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

function registrationSocket() {
  const dir = path.join(root, 'plugins_registry');
  const socket = fs.readdirSync(dir).find((name) => name.startsWith(driverName) && name.endsWith('-reg.sock'));
  assert.ok(socket, `no registration socket for ${driverName} in ${dir}`);
  return path.join(dir, socket);
}

async function pluginInfo() {
  const Registration = registrationApi().Registration;
  const client = new Registration(unixTarget(registrationSocket()), grpc.credentials.createInsecure());
  try {
    const info = await call(client, 'GetInfo', {});
    await call(client, 'NotifyRegistrationStatus', { plugin_registered: true, error: '' });
    return info;
  } finally {
    client.close();
  }
}

// A claim allocated to `device` of this node, as the scheduler would write it.
async function allocatedClaim(name, device) {
  const claim = await api.post(claimsPath, {
    apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim',
    metadata: { name },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: driverName } }] } },
  });
  claim.status = {
    allocation: {
      devices: { results: [{ request: 'gpu', driver: driverName, pool: node, device }] },
    },
  };
  return api.put(`${claimsPath}/${name}/status`, claim);
}

function draClient(version, endpoint) {
  const DRAPlugin = draApi(version).DRAPlugin;
  return new DRAPlugin(unixTarget(endpoint), grpc.credentials.createInsecure());
}

test('registration: GetInfo names the driver, its socket and both DRA versions', async () => {
  const info = await pluginInfo();
  assert.equal(info.type, 'DRAPlugin');
  assert.equal(info.name, driverName);
  assert.ok(fs.existsSync(info.endpoint), `endpoint ${info.endpoint} exists`);
  assert.ok(info.supported_versions.includes('v1.DRAPlugin'));
  assert.ok(info.supported_versions.includes('v1beta1.DRAPlugin'));
});

test('the driver publishes its node\'s ResourceSlices', async () => {
  const devices = await eventually('slices of the node', async () => {
    const list = await api.get('/apis/resource.k8s.io/v1/resourceslices');
    const mine = list.items.filter((s) => s.spec.nodeName === node && s.spec.driver === driverName);
    const names = mine.flatMap((s) => (s.spec.devices ?? []).map((d) => d.name)).sort();
    return names.length === 2 ? names : undefined;
  });
  assert.deepEqual(devices, ['gpu-0', 'gpu-1']);
});

test('prepare and unprepare over v1 and v1beta1', async () => {
  const { endpoint } = await pluginInfo();
  const claim = await allocatedClaim('wire-claim', 'gpu-1');
  const uid = claim.metadata.uid;
  const request = { claims: [{ namespace: 'default', uid, name: 'wire-claim' }] };
  const v1 = draClient('v1', endpoint);
  const v1beta1 = draClient('v1beta1', endpoint);
  try {
    const prepared = await call(v1, 'NodePrepareResources', request);
    const result = prepared.claims[uid];
    assert.ok(result, `response keyed by claim UID ${uid}: ${JSON.stringify(prepared)}`);
    assert.equal(result.error, '');
    assert.equal(result.devices.length, 1);
    const [device] = result.devices;
    assert.equal(device.pool_name, node);
    assert.equal(device.device_name, 'gpu-1');
    assert.ok(device.cdi_device_ids.includes(`k8s.${driverName}/gpu=${uid}-gpu-1`),
      JSON.stringify(device.cdi_device_ids));
    const cdiFiles = fs.readdirSync(path.join(root, 'cdi'));
    const spec = cdiFiles.find((f) => f.includes(uid));
    assert.ok(spec, `a CDI spec for the claim in ${cdiFiles}`);
    assert.match(fs.readFileSync(path.join(root, 'cdi', spec), 'utf8'), /GPU_DEVICE_1=gpu-1/);

    // Idempotent, and the same answer through v1beta1 (which has no share_id).
    const again = await call(v1beta1, 'NodePrepareResources', request);
    assert.equal(again.claims[uid].error, '');
    assert.deepEqual(again.claims[uid].devices[0].cdi_device_ids, device.cdi_device_ids);
    assert.equal('share_id' in again.claims[uid].devices[0], false);

    const unprepared = await call(v1, 'NodeUnprepareResources', request);
    assert.deepEqual(Object.keys(unprepared.claims), [uid]);
    assert.equal(unprepared.claims[uid].error, '');
    assert.equal(fs.readdirSync(path.join(root, 'cdi')).some((f) => f.includes(uid)), false);
  } finally {
    v1.close();
    v1beta1.close();
  }
});

test('a wrong UID is an error for that claim only', async () => {
  const { endpoint } = await pluginInfo();
  const good = await allocatedClaim('good-claim', 'gpu-0');
  const v1 = draClient('v1', endpoint);
  try {
    const reply = await call(v1, 'NodePrepareResources', {
      claims: [
        { namespace: 'default', uid: good.metadata.uid, name: 'good-claim' },
        { namespace: 'default', uid: 'not-the-uid', name: 'good-claim' },
      ],
    });
    assert.equal(reply.claims[good.metadata.uid].error, '');
    assert.notEqual(reply.claims['not-the-uid'].error, '');
    await call(v1, 'NodeUnprepareResources', {
      claims: [{ namespace: 'default', uid: good.metadata.uid, name: 'good-claim' }],
    });
  } finally {
    v1.close();
  }
});
