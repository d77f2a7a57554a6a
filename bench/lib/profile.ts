import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileShare {
  name: string;
  /** Share of the busy (non-idle) samples, in percent. */
  percent: number;
}

export interface ProfileSummary {
  /** Share of samples in which the process was busy, in percent. */
  busyPercent: number;
  byPackage: ProfileShare[];
  byFunction: ProfileShare[];
}

/** Where a function lives: a package, a part of the project, Node itself, or V8's own work. */
function owner(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node (core modules)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const project = /\/dist\/(libs\/[^/]+|apps\/[^/]+)/.exec(url);
  if (project) return `project: ${project[1]}`;
  return url.split('/').slice(-2).join('/');
}

function top(counts: Map<string, number>, total: number, count: number): ProfileShare[] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, hits]) => ({ name, percent: Math.round((1000 * hits) / total) / 10 }));
}

/** Self time by package and by function, from a .cpuprofile written by profiled-main. */
export function summariseProfile(file: string, count = 12): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const packages = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, n] of hits) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    busy += n;
    const where = owner(frame);
    packages.set(where, (packages.get(where) ?? 0) + n);
    const fn = `${frame.functionName || '(anonymous)'} ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + n);
  }
  return {
    busyPercent: Math.round((1000 * busy) / Math.max(1, profile.samples.length)) / 10,
    byPackage: top(packages, busy, count),
    byFunction: top(functions, busy, count),
  };
}
