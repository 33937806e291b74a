import { INVALID_PHONE_REASON } from './block-list.errors';

/** What an import request asks for, once every input has been read. */
export interface BlockImportPlan {
  totalProvided: number;
  /** Distinct normalized numbers, sorted so that concurrent imports lock rows in one order. */
  phones: string[];
  /** Occurrences of a number already seen earlier in the same request. */
  repeated: number;
  /** Occurrences that are not valid phone numbers (an input repeated counts each time). */
  failed: number;
  /** Each unreadable input, as given, with why. */
  failedNumbers: Map<string, string>;
}

export interface BlockImportSummary {
  success: boolean;
  error?: string;
  totalProvided: number;
  successfullyBlocked: number;
  alreadyBlocked: number;
  failed: number;
  failedNumbers: Map<string, string>;
}

export const NOTHING_TO_BLOCK_MESSAGE = 'Nenhum número de telefone válido foi informado';

export function planBlockImport(
  inputs: readonly string[],
  normalize: (input: string) => string | null,
): BlockImportPlan {
  const phones = new Set<string>();
  const failedNumbers = new Map<string, string>();
  let repeated = 0;
  let failed = 0;
  for (const input of inputs) {
    const phone = normalize(input);
    if (phone === null) {
      failed += 1;
      failedNumbers.set(input, INVALID_PHONE_REASON);
    } else if (phones.has(phone)) {
      repeated += 1;
    } else {
      phones.add(phone);
    }
  }
  return {
    totalProvided: inputs.length,
    phones: [...phones].sort(),
    repeated,
    failed,
    failedNumbers,
  };
}

/**
 * The counts always add up to totalProvided: a number repeated in the request is blocked once
 * and its later occurrences count as already blocked (by the earlier one).
 */
export function summarizeBlockImport(
  plan: BlockImportPlan,
  newlyBlocked: number,
): BlockImportSummary {
  const summary: BlockImportSummary = {
    success: plan.phones.length > 0,
    totalProvided: plan.totalProvided,
    successfullyBlocked: newlyBlocked,
    alreadyBlocked: plan.phones.length - newlyBlocked + plan.repeated,
    failed: plan.failed,
    failedNumbers: plan.failedNumbers,
  };
  if (!summary.success) {
    summary.error = NOTHING_TO_BLOCK_MESSAGE;
  }
  return summary;
}
