import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The functions that spent the most time on the CPU themselves (self time), from a .cpuprofile. */
export function topSelfTime(path: string, count: number): Array<{ name: string; ms: number }> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const nameOf = new Map(profile.nodes.map((node) => [node.id, frameName(node)]));
  const selfUs = new Map<string, number>();
  profile.samples.forEach((nodeId, i) => {
    const name = nameOf.get(nodeId) ?? '?';
    selfUs.set(name, (selfUs.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ name, ms: Math.round(us / 1000) }));
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(node_modules\/|dist\/)/, '$1');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}
