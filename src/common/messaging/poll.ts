/** A poll as a campaign or an automation stores it. */
export interface PollDefinition {
  name: string;
  options: string[];
  selectableCount: number;
}

/** The poll of a request, copied field by field so nothing else in its body is stored. */
export function pollDefinitionOf(poll: PollDefinition | undefined): PollDefinition | null {
  return poll
    ? { name: poll.name, options: poll.options, selectableCount: poll.selectableCount }
    : null;
}
