// A Python Worker in the Pyodide its compat flags select (runtimes.mjs), set up as the Workers
// runtime sets it up.
//
// The bundle's files go to /session/metadata (python_modules/ inside it), the search path is
// ordered as the runtime orders it, and the two JS modules the SDK imports
// (`_pyodide_entrypoint_helper`, `_cloudflare_compat_flags`) are registered before the Worker's
// main module is imported. Handlers are called on a fresh `Default(ctx, env)` per event.

import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { D1Database, ExecutionContext } from './bindings.mjs';
import { pyodideFor } from './runtimes.mjs';

export const SESSION = '/session/metadata';
const BRIDGE = readFileSync(fileURLToPath(new URL('./bridge.py', import.meta.url)), 'utf8');

// Files of a `wrangler deploy --dry-run --outdir` directory, as paths relative to it. The
// README.md wrangler writes beside them is a note to people, not part of the upload.
export function bundleFiles(dir) {
  const found = [];
  const walk = (relative) => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else if (child !== 'README.md') found.push(child);
    }
  };
  walk('');
  return found.sort();
}

// The CPU time the calling thread has had, in ms (Linux's /proc/thread-self/schedstat), or NaN
// where it cannot be read: unlike the wall clock, it leaves out the time other processes held the CPU.
export function threadCpuMs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

// What `ctx.waitUntil` becomes once the SDK has seen the context: a Python awaitable handed to it
// is copied (its proxy outlives the call) and destroyed once settled.
function patchWaitUntil(ctx) {
  if (Object.prototype.toString.call(ctx) !== '[object ExecutionContext]' || ctx.patched) return;
  const original = ctx.waitUntil.bind(ctx);
  ctx.waitUntil = (awaitable) => {
    const owned = typeof awaitable?.copy === 'function' ? awaitable.copy() : awaitable;
    original(
      (async () => {
        try {
          await owned;
        } finally {
          if (typeof owned?.destroy === 'function') owned.destroy();
        }
      })(),
    );
  };
  ctx.patched = true;
}

// The env one invocation's `Default(ctx, env)` gets: each D1 binding counts that invocation's calls.
function invocationEnv(env) {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value instanceof D1Database ? value.forInvocation() : value]),
  );
}

export class PythonWorker {
  constructor({ pyodide, bridge, mainModule, files, env }) {
    this.pyodide = pyodide;
    this.bridge = bridge;
    this.mainModule = mainModule;
    this.files = files;
    this.env = env;
  }

  // Loads the Pyodide `compatFlags` select, mounts the bundle and imports its main module.
  // `output(stream, line)` gets the Worker's stdout and stderr, line by line.
  static async load(options) {
    const worker = await PythonWorker.prepare(options);
    worker.importMain();
    return worker;
  }

  // `load` short of importing the main module: `importMain()` does that.
  static async prepare({ bundleDir, mainModule, env = {}, compatFlags = {}, output, replace = {} }) {
    const { loadPyodide } = await import(pyodideFor(compatFlags).module);
    const pyodide = await loadPyodide({ stdout: () => {}, stderr: () => {} });
    pyodide.setStdout({ batched: (line) => output('stdout', line) });
    pyodide.setStderr({ batched: (line) => output('stderr', line) });

    const files = bundleFiles(bundleDir);
    for (const file of files) {
      const target = `${SESSION}/${file}`;
      pyodide.FS.mkdirTree(path.posix.dirname(target));
      const contents = file in replace ? replace[file] : readFileSync(path.join(bundleDir, file));
      pyodide.FS.writeFile(target, contents);
    }

    const cloudflareWorkers = { env, WorkerEntrypoint: class WorkerEntrypoint {} };
    pyodide.registerJsModule('_pyodide_entrypoint_helper', {
      doAnImport: async (name) => {
        if (name === 'cloudflare:workers') return cloudflareWorkers;
        throw new Error(`the tickwork host has no JS module '${name}'`);
      },
      cloudflareWorkersModule: cloudflareWorkers,
      cloudflareSocketsModule: {
        connect() {
          throw new Error('the tickwork host has no sockets');
        },
      },
      workerEntrypoint: cloudflareWorkers.WorkerEntrypoint,
      patchWaitUntil,
      *patch_env_helper(patch) {
        const saved = { ...env };
        Object.assign(env, patch instanceof Map ? Object.fromEntries(patch) : patch);
        try {
          yield;
        } finally {
          for (const key of Object.keys(env)) delete env[key];
          Object.assign(env, saved);
        }
      },
    });
    pyodide.registerJsModule('_cloudflare_compat_flags', compatFlags);

    const namespace = pyodide.globals.get('dict')();
    pyodide.runPython(BRIDGE, { globals: namespace, filename: 'tickwork-host-bridge.py' });
    const bridge = {
      arrangeSearchPath: namespace.get('arrange_search_path'),
      importMain: namespace.get('import_main'),
      call: namespace.get('call'),
      loadedModules: namespace.get('loaded_modules'),
      entrypointMethods: namespace.get('entrypoint_methods'),
      storeBinding: namespace.get('store_binding'),
      hasConsole: namespace.get('has_console'),
      serveConsole: namespace.get('serve_console'),
    };
    bridge.arrangeSearchPath(SESSION, `${SESSION}/python_modules`, !!compatFlags.python_process_pth_files);

    return new PythonWorker({ pyodide, bridge, mainModule, files, env });
  }

  // Imports the main module: `main`, and the import's time on the wall clock (`importMs`) and in
  // CPU time (`importCpuMs`, threadCpuMs').
  importMain() {
    const name = this.mainModule.replace(/\.py$/, '').replaceAll('/', '.');
    const cpuBefore = threadCpuMs();
    [this.main, this.importMs] = this.bridge.importMain(name).toJs({ depth: 1 });
    this.importCpuMs = threadCpuMs() - cpuBefore;
    return this;
  }

  // `[name, file]` of every module in sys.modules.
  loadedModules() {
    return this.bridge.loadedModules().toJs();
  }

  // The D1 binding of tickwork's run records (from the build's manifest), or undefined.
  storeBinding() {
    return this.bridge.storeBinding() ?? undefined;
  }

  handlerNames() {
    const Default = this.main.Default;
    return Default ? this.bridge.entrypointMethods(Default).toJs() : [];
  }

  // Whether the Worker is a tickwork app with tickwork's console.
  hasConsole() {
    return this.bridge.hasConsole(this.main);
  }

  // One event: `Default(ctx, env)` is built, `method` called with `args`, and what the handler
  // gave `ctx.waitUntil` awaited. Python errors are thrown with their traceback as the message.
  async invoke(method, args, { relaxed = false } = {}) {
    return await this.within((instance) => this.bridge.call(instance, method, relaxed, ...args));
  }

  // One request to tickwork's console as the local host serves it at `prefix`: no login, on the
  // Worker's own env.
  async console(request, prefix) {
    return await this.within((instance) => this.bridge.serveConsole(instance, this.main, request, prefix));
  }

  async within(call) {
    const Default = this.main.Default;
    if (!Default) throw new Error('the Worker\'s main module defines no class Default(WorkerEntrypoint)');
    const ctx = new ExecutionContext();
    const instance = Default(ctx, invocationEnv(this.env));
    try {
      let result = await call(instance);
      if (result && typeof result === 'object' && 'js_response' in result) result = result.js_response;
      const failures = await ctx.settle();
      if (failures.length) throw failures[0];
      return result;
    } finally {
      instance.destroy();
    }
  }
}
