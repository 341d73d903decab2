// Shared helpers for the grpc-js wire suites: child processes of dralloc
// with bounded waits, the API server over plain HTTP, and the node protocols
// loaded from the repository's .proto files with @grpc/proto-loader.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const here = path.dirname(fileURLToPath(import.meta.url));
export const protoRoot = path.resolve(here, '../../../proto');
export const dralloc = path.resolve(process.env.DRALLOC ?? '../../../build/src/cli/dralloc');

// The gRPC package objects of one proto file (path under proto/).
export function loadProto(file) {
  const definition = protoLoader.loadSync(path.join(protoRoot, file), {
    keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
    includeDirs: [protoRoot],
  });
  return grpc.loadPackageDefinition(definition);
}
export const registrationApi = () =>
  loadProto('k8s.io/kubelet/pkg/apis/pluginregistration/v1/api.proto').pluginregistration;
export const draApi = (version) =>
  loadProto(`k8s.io/kubelet/pkg/apis/dra/${version}/api.proto`).k8s.io.kubelet.pkg.apis.dra[version];
export const podResourcesApi = () =>
  loadProto('k8s.io/kubelet/pkg/apis/podresources/v1/api.proto').v1;

export function tempDir(name) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `dralloc-${name}-`));
}

// Polls `probe` (async, returns a value or undefined) until it yields a
// value; fails with `what` after `timeoutMs`.
export async function eventually(what, probe, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

// A dralloc child process whose output is kept; stop() ends it.
export class Child {
  constructor(name, args, logDir) {
    this.name = name;
    this.output = '';
    this.log = path.join(logDir, `${name}.log`);
    this.process = spawn(dralloc, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk) => {
      this.output += chunk.toString();
      fs.appendFileSync(this.log, chunk);
    };
    this.process.stdout.on('data', keep);
    this.process.stderr.on('data', keep);
    this.exited = new Promise((resolve) => this.process.on('exit', resolve));
  }
  async waitFor(pattern, timeoutMs = 30000) {
    return eventually(`${this.name} to print ${pattern}`, () => {
      if (this.process.exitCode !== null) {
        throw new Error(`${this.name} exited with ${this.process.exitCode}:\n${this.output}`);
      }
      const match = this.output.match(pattern);
      return match ? (match[1] ?? match[0]) : undefined;
    }, timeoutMs);
  }
  // SIGKILL: the process gets no chance to clean up (sockets, state).
  async kill9() {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill('SIGKILL');
    await this.exited;
  }
  get running() { return this.process.exitCode === null && this.process.signalCode === null; }
  async stop() {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 10000);
    await this.exited;
    clearTimeout(timer);
  }
}

// The API server over HTTP: JSON in, JSON out, errors thrown with the body.
export class Api {
  constructor(server) { this.server = server; }
  async request(method, urlPath, body) {
    const response = await fetch(this.server + urlPath, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!response.ok) {
      const error = new Error(`${method} ${urlPath}: ${response.status} ${text}`);
      error.code = response.status;
      throw error;
    }
    return text ? JSON.parse(text) : {};
  }
  get(p) { return this.request('GET', p); }
  post(p, body) { return this.request('POST', p, body); }
  put(p, body) { return this.request('PUT', p, body); }
  delete(p) { return this.request('DELETE', p); }
}

// Calls a unary gRPC method as a promise with a deadline.
export function call(client, method, request, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + timeoutMs }, (error, reply) => {
      if (error) reject(error); else resolve(reply);
    });
  });
}

export function unixTarget(socket) { return `unix://${socket}`; }

export const claimsPath = '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims';
export const podsPath = '/api/v1/namespaces/default/pods';
