// A DRA driver for the node-agent suites, written with @grpc/grpc-js
// against the repository's .proto files. It serves the registration
// service on a socket in the agent's registry directory and the DRA service
// (v1 and/or v1beta1, as its `versions` advertise) on its endpoint, writes
// one CDI spec per prepared claim and removes it on unprepare. Knobs make it
// misbehave: an unprepare that takes long (and gives up when the caller
// goes away), CDI IDs that no spec defines, any registration type/versions.
import fs from 'node:fs';
import path from 'node:path';
import grpc from '@grpc/grpc-js';
import { draApi, registrationApi, unixTarget } from './harness.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class TestDriver {
  // name: driver name; registrySocket, endpoint: socket paths; pool: the
  // node's pool; cdiDir: where specs go. Optional: type ('DRAPlugin'),
  // versions (['v1.DRAPlugin']), kind (CDI kind, 'js.example.com/dev'),
  // writeSpecs (true: each prepared claim gets a spec defining its IDs),
  // unprepareDelayMs (0; may be changed while running).
  constructor(options) {
    Object.assign(this, {
      type: 'DRAPlugin', versions: ['v1.DRAPlugin'], kind: 'js.example.com/dev',
      writeSpecs: true, unprepareDelayMs: 0,
    }, options);
    // Every call, in order: { uid, name, version, cancelled, done }.
    this.calls = { prepare: [], unprepare: [] };
    this.statuses = [];  // NotifyRegistrationStatus requests
    this.prepared = new Set();  // claim UIDs prepared and not unprepared
    this.servers = [];
  }

  // The CDI ID of a claim's one device, and the spec file defining it.
  cdiId(uid) { return `${this.kind}=${uid}-dev-0`; }
  specPath(uid) { return path.join(this.cdiDir, `${this.kind.replace(/[/.]/g, '_')}_${uid}.json`); }

  // Writes the spec defining cdiId(uid) (also used by tests that make a
  // missing spec appear later).
  writeSpec(uid) {
    fs.mkdirSync(this.cdiDir, { recursive: true });
    fs.writeFileSync(this.specPath(uid), JSON.stringify({
      cdiVersion: '0.5.0', kind: this.kind,
      devices: [{ name: `${uid}-dev-0`, containerEdits: { env: [`JS_DEVICE=${uid}`] } }],
    }));
  }

  // DRA service first, then registration (the agent dials the endpoint as
  // soon as the registration socket appears). A socket file already at
  // either path is removed first, as plugins do.
  async start() {
    const services = [];
    for (const version of ['v1', 'v1beta1']) {
      if (this.versions.includes(`${version}.DRAPlugin`)) {
        services.push([draApi(version).DRAPlugin.service, this.draService(version)]);
      }
    }
    if (services.length > 0) await this.serve(this.endpoint, services);
    await this.serve(this.registrySocket, [[registrationApi().Registration.service, {
      GetInfo: (_call, reply) => reply(null, {
        type: this.type, name: this.name, endpoint: this.endpoint, supported_versions: this.versions,
      }),
      NotifyRegistrationStatus: (call, reply) => { this.statuses.push(call.request); reply(null, {}); },
    }]]);
  }

  // Stops serving and removes both socket files (a clean driver exit).
  async stop() {
    for (const server of this.servers.splice(0)) server.forceShutdown();
    fs.rmSync(this.registrySocket, { force: true });
    fs.rmSync(this.endpoint, { force: true });
  }

  async serve(socket, services) {
    fs.mkdirSync(path.dirname(socket), { recursive: true });
    fs.rmSync(socket, { force: true });
    const server = new grpc.Server();
    for (const [definition, implementation] of services) server.addService(definition, implementation);
    await new Promise((resolve, reject) => server.bindAsync(unixTarget(socket),
      grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())));
    this.servers.push(server);
  }

  draService(version) {
    return {
      NodePrepareResources: (call, reply) => reply(null, { claims: this.prepare(call, version) }),
      NodeUnprepareResources: (call, reply) => {
        this.unprepare(call, version).then((claims) => { if (claims) reply(null, { claims }); });
      },
    };
  }

  prepare(call, version) {
    const claims = {};
    for (const claim of call.request.claims) {
      this.calls.prepare.push({ ...claim, version, cancelled: false, done: true });
      if (this.writeSpecs) this.writeSpec(claim.uid);
      this.prepared.add(claim.uid);
      claims[claim.uid] = {
        devices: [{ request_names: [], pool_name: this.pool, device_name: 'dev-0',
          cdi_device_ids: [this.cdiId(claim.uid)] }],
        error: '',
      };
    }
    return claims;
  }

  // Waits unprepareDelayMs; a caller that went away meanwhile (deadline,
  // or killed) gets nothing done and no answer, so the work is left for
  // the retry the caller owes.
  async unprepare(call, version) {
    const entries = call.request.claims.map((claim) => ({ ...claim, version, cancelled: false, done: false }));
    this.calls.unprepare.push(...entries);
    call.on('cancelled', () => { for (const entry of entries) entry.cancelled = true; });
    if (this.unprepareDelayMs > 0) await sleep(this.unprepareDelayMs);
    if (call.cancelled || entries.some((entry) => entry.cancelled)) {
      for (const entry of entries) entry.cancelled = true;
      return undefined;
    }
    const claims = {};
    for (const entry of entries) {
      fs.rmSync(this.specPath(entry.uid), { force: true });
      this.prepared.delete(entry.uid);
      entry.done = true;
      claims[entry.uid] = { error: '' };
    }
    return claims;
  }
}
