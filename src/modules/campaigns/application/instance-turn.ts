import type { InstanceTurnEnd } from '../../gateway/application/ports/instance-pacing';

/** What a turn on the instance came to, as InstancePacing.release takes it. */
export interface InstanceTurn extends InstanceTurnEnd {
  /** A delivery statement ended the turn: it counted the messages and ended the hold. */
  released: boolean;
}

/** A turn that has sent nothing yet. */
export function newInstanceTurn(): InstanceTurn {
  return { sent: 0, pauseDraw: null, restSeconds: null, released: false };
}
