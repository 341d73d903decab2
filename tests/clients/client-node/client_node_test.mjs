// @kubernetes/client-node 1.4.0 (a real client nobody here wrote) against
// `dralloc apiserver`. Run by ../client_node_suite.sh with KUBECONFIG set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';

const kc = new k8s.KubeConfig();
kc.loadFromFile(process.env.KUBECONFIG);
const resource = kc.makeApiClient(k8s.ResourceV1Api);
const namespace = 'default';
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function claim(name, extra = {}) {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name, namespace, labels: { app: 'demo' } },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', ...extra } }] } },
  };
}

function slice(name, node) {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name },
    spec: {
      driver: 'gpu.example.com',
      nodeName: node,
      pool: { name: node, generation: 1, resourceSliceCount: 1 },
      devices: [{ name: 'gpu-0', attributes: { model: { string: 'A100' } } }],
    },
  };
}

// Resolves with the events seen once `done(events)` holds, or rejects.
async function watchUntil(path, query, action, done) {
  const events = [];
  const watch = new k8s.Watch(kc);
  let request;
  const result = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; saw ${JSON.stringify(events)}`)), 10000);
    watch.watch(path, query, (type, object) => {
      events.push([type, object?.metadata?.name]);
      if (done(events)) {
        clearTimeout(timer);
        resolve(events);
      }
    }, (err) => { if (err) { clearTimeout(timer); reject(err); } }).then((r) => { request = r; });
  });
  await new Promise((r) => setTimeout(r, 300));
  await action();
  try {
    return await result;
  } finally {
    request?.abort();
  }
}

test('create, read, list and delete ResourceClaims', async () => {
  const created = await resource.createNamespacedResourceClaim({ namespace, body: claim('node-c1') });
  assert.equal(created.metadata.name, 'node-c1');
  assert.equal(created.spec.devices.requests[0].exactly.count, 1);
  const read = await resource.readNamespacedResourceClaim({ name: 'node-c1', namespace });
  assert.equal(read.metadata.uid, created.metadata.uid);
  const list = await resource.listNamespacedResourceClaim({ namespace, labelSelector: 'app=demo' });
  assert.ok(list.items.some((c) => c.metadata.name === 'node-c1'));
  assert.ok(Number(list.metadata.resourceVersion) > 0);
  await resource.deleteNamespacedResourceClaim({ name: 'node-c1', namespace });
  await assert.rejects(resource.readNamespacedResourceClaim({ name: 'node-c1', namespace }),
    (e) => e.code === 404);
});

test('patch with JSON patch, merge patch and server-side apply', async () => {
  await resource.createNamespacedResourceClaim({ namespace, body: claim('node-c2') });
  const jsonPatched = await resource.patchNamespacedResourceClaim({
    name: 'node-c2', namespace, body: [{ op: 'add', path: '/metadata/labels/json', value: 'yes' }],
  });
  assert.equal(jsonPatched.metadata.labels.json, 'yes');
  const merged = await resource.patchNamespacedResourceClaim(
    { name: 'node-c2', namespace, body: { metadata: { labels: { merge: 'yes' } } } }, mergePatch);
  assert.equal(merged.metadata.labels.merge, 'yes');
  const generic = k8s.KubernetesObjectApi.makeApiClient(kc);
  const applied = await generic.patch(
    { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'gpu.example.com', labels: { by: 'apply' } } },
    undefined, undefined, 'client-node-test', true, k8s.PatchStrategy.ServerSideApply);
  assert.equal(applied.metadata.labels.by, 'apply');
  assert.ok(applied.metadata.managedFields.some((m) => m.manager === 'client-node-test' && m.operation === 'Apply'));
});

test('update the status subresource', async () => {
  const status = {
    status: {
      allocation: { devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' }] } },
      reservedFor: [{ resource: 'pods', name: 'p', uid: '1' }],
    },
  };
  const updated = await resource.patchNamespacedResourceClaimStatus(
    { name: 'node-c2', namespace, body: status }, mergePatch);
  assert.equal(updated.status.reservedFor[0].name, 'p');
  const read = await resource.readNamespacedResourceClaimStatus({ name: 'node-c2', namespace });
  assert.equal(read.status.allocation.devices.results[0].device, 'gpu-0');
});

test('ResourceSlices with a field selector', async () => {
  await resource.createResourceSlice({ body: slice('node-s1', 'node-1') });
  await resource.createResourceSlice({ body: slice('node-s2', 'node-2') });
  const onNode2 = await resource.listResourceSlice({ fieldSelector: 'spec.nodeName=node-2' });
  assert.deepEqual(onNode2.items.map((s) => s.metadata.name), ['node-s2']);
});

test('a watch sees ADDED, MODIFIED and DELETED', async () => {
  const list = await resource.listNamespacedResourceClaim({ namespace });
  const events = await watchUntil(
    `/apis/resource.k8s.io/v1/namespaces/${namespace}/resourceclaims`,
    { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true },
    async () => {
      await resource.createNamespacedResourceClaim({ namespace, body: claim('node-w') });
      await resource.patchNamespacedResourceClaim(
        { name: 'node-w', namespace, body: { metadata: { labels: { x: 'y' } } } }, mergePatch);
      await resource.deleteNamespacedResourceClaim({ name: 'node-w', namespace });
    },
    (seen) => seen.some(([type, name]) => type === 'DELETED' && name === 'node-w'));
  const mine = events.filter(([, name]) => name === 'node-w').map(([type]) => type);
  assert.deepEqual(mine, ['ADDED', 'MODIFIED', 'DELETED']);
});

test('an informer gets add events for new ResourceSlices', async () => {
  const informer = k8s.makeInformer(kc, '/apis/resource.k8s.io/v1/resourceslices',
    () => resource.listResourceSlice());
  const added = new Set();
  const seen = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; saw ${[...added]}`)), 10000);
    informer.on('add', (s) => {
      added.add(s.metadata.name);
      if (added.has('node-s3')) { clearTimeout(timer); resolve(); }
    });
  });
  await informer.start();
  await resource.createResourceSlice({ body: slice('node-s3', 'node-3') });
  try {
    await seen;
    assert.ok(added.has('node-s1'), 'the initial list is delivered as adds');
  } finally {
    await informer.stop();
  }
});

test('errors are ApiExceptions with Kubernetes codes', async () => {
  await assert.rejects(resource.readNamespacedResourceClaim({ name: 'missing', namespace }),
    (e) => e.code === 404 && JSON.parse(e.body).reason === 'NotFound');
  const invalid = claim('node-bad');
  delete invalid.spec.devices.requests[0].exactly.deviceClassName;
  await assert.rejects(resource.createNamespacedResourceClaim({ namespace, body: invalid }),
    (e) => e.code === 422 && JSON.parse(e.body).details.causes[0].field ===
      'spec.devices.requests[0].exactly.deviceClassName');
  await assert.rejects(resource.createNamespacedResourceClaim({ namespace, body: claim('node-c2') }),
    (e) => e.code === 409);
});
