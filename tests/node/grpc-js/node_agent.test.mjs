// A DRA driver written with @grpc/grpc-js against our .proto files registers
// with `dralloc node` through the registry directory and is driven by it: a
// pod with a claim reaches Running after NodePrepareResources, and deleting
// it calls NodeUnprepareResources. A driver advertising no DRA version we
// support is told so in NotifyRegistrationStatus.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import grpc from '@grpc/grpc-js';
import {
  Api, Child, draApi, eventually, podsPath, registrationApi, tempDir, unixTarget,
} from './harness.mjs';

const driverName = 'js.example.com';
const node = 'js-node';
let root, server, agent, api;
const servers = [];

before(async () => {
  root = tempDir('agent-wire');
  server = new Child('serve', ['serve', '--listen', '127.0.0.1:0', '--storage', 'memory:'], root);
  api = new Api(await server.waitFor(/listening on (http:\/\/[0-9.:]+)/));
  agent = new Child('node', ['node', '--node-name', node, '--server', api.server, '--root', root], root);
  await agent.waitFor(/^ready$/m);
});

after(async () => {
  for (const s of servers) s.forceShutdown();
  await agent?.stop();
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

// Serves `services` ([[definition, implementation]...]) on a unix socket.
async function serve(socket, services) {
  fs.mkdirSync(path.dirname(socket), { recursive: true });
  const grpcServer = new grpc.Server();
  for (const [definition, implementation] of services) grpcServer.addService(definition, implementation);
  await new Promise((resolve, reject) => grpcServer.bindAsync(unixTarget(socket),
    grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())));
  servers.push(grpcServer);
  return grpcServer;
}

// Registers a driver: returns the statuses the node agent notifies.
async function register(name, versions, endpoint) {
  const statuses = [];
  const Registration = registrationApi().Registration;
  await serve(path.join(root, 'plugins_registry', `${name}-reg.sock`), [[Registration.service, {
    GetInfo: (_call, reply) => reply(null, { type: 'DRAPlugin', name, endpoint, supported_versions: versions }),
    NotifyRegistrationStatus: (call, reply) => { statuses.push(call.request); reply(null, {}); },
  }]]);
  return statuses;
}

test('a driver with no supported DRA version is rejected with a reason', async () => {
  const statuses = await register('old.example.com', ['v1alpha2.Node'], path.join(root, 'none.sock'));
  const [status] = await eventually('a registration status', () => statuses[0] && statuses);
  assert.equal(status.plugin_registered, false);
  assert.match(status.error, /version/i);
});

test('our node agent prepares through the grpc-js driver and the pod runs', async () => {
  const calls = { prepare: [], unprepare: [] };
  const cdiDir = path.join(root, 'cdi');
  const endpoint = path.join(root, 'plugins', driverName, 'dra.sock');
  const DRAPlugin = draApi('v1').DRAPlugin;
  await serve(endpoint, [[DRAPlugin.service, {
    NodePrepareResources: (call, reply) => {
      const claims = {};
      for (const claim of call.request.claims) {
        calls.prepare.push(claim);
        const device = `${claim.uid}-dev-0`;
        fs.mkdirSync(cdiDir, { recursive: true });
        fs.writeFileSync(path.join(cdiDir, `js.example.com-dev_${claim.uid}.json`), JSON.stringify({
          cdiVersion: '0.5.0', kind: 'js.example.com/dev',
          devices: [{ name: device, containerEdits: { env: ['JS_DEVICE=dev-0'] } }],
        }));
        claims[claim.uid] = {
          devices: [{ request_names: ['dev'], pool_name: node, device_name: 'dev-0',
            cdi_device_ids: [`js.example.com/dev=${device}`] }],
          error: '',
        };
      }
      reply(null, { claims });
    },
    NodeUnprepareResources: (call, reply) => {
      const claims = {};
      for (const claim of call.request.claims) {
        calls.unprepare.push(claim);
        fs.rmSync(path.join(cdiDir, `js.example.com-dev_${claim.uid}.json`), { force: true });
        claims[claim.uid] = { error: '' };
      }
      reply(null, { claims });
    },
  }]]);
  const statuses = await register(driverName, ['v1.DRAPlugin'], endpoint);
  const [status] = await eventually('registration of the grpc-js driver', () => statuses[0] && statuses);
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
  assert.equal(calls.prepare.length, 1);
  const [claim] = calls.prepare;
  assert.equal(claim.namespace, 'default');
  assert.equal(claim.name, pod.status.resourceClaimStatuses[0].resourceClaimName);

  await api.delete(`${podsPath}/js-pod`);
  await eventually('NodeUnprepareResources for the claim', () => calls.unprepare.find((c) => c.uid === claim.uid), 30000);
  assert.equal(fs.existsSync(path.join(cdiDir, `js.example.com-dev_${claim.uid}.json`)), false);
});
