import { createHash } from 'node:crypto';

/**
 * Message variants (spintax), docs/API-RULES.md §4. A brace group with a `|` at its top level
 * is a group of variants, `{Olá|Oi|Bom dia}`: one is drawn per contact. A brace group without
 * one is left as written for the variables (`{PrimeiroNome}`, a record column) that
 * renderMessage fills afterwards. Variants may hold variables and other groups:
 * `{Oi|{Olá|Bom dia} {PrimeiroNome}}`.
 *
 * The draw comes before the variables are filled, so a contact's data is never read as
 * variants, and it is deterministic for a seed (the campaign and the contact's phone): a send
 * that is tried again draws the same text.
 */

/** Variants one group may offer: plenty against identical texts; more is usually a pasted list. */
export const MAX_VARIANTS_PER_GROUP = 20;
/**
 * Groups inside groups inside groups, and no deeper: beyond three levels a text is no longer
 * readable by the person who writes it. The number of combinations is not limited: the draw
 * walks the text once, and the text's length is bounded by its field.
 */
export const MAX_VARIANT_DEPTH = 3;

/**
 * Braces of any kind inside braces: deeper than this is no message anyone writes, and the
 * bound keeps every walk over the parsed text shallow.
 */
const MAX_BRACE_NESTING = 10;

type Part = string | BraceGroup;

/** `{a|b}` (two or more variants) or `{a}` (one: braces kept, a variable or plain text). */
interface BraceGroup {
  variants: Part[][];
}

type Parsed = { parts: Part[] } | { problem: string };

/**
 * The first problem that makes a template unusable, in Portuguese, or null: unbalanced
 * braces, braces nested more than 10 deep, empty braces `{}`, a group whose every variant is blank (`{|}`), a group of more than
 * MAX_VARIANTS_PER_GROUP variants, groups nested deeper than MAX_VARIANT_DEPTH. A blank variant
 * beside others (`{Oi|}`: "Oi" or nothing) is allowed.
 */
export function variantProblem(template: string): string | null {
  const parsed = parse(template);
  return 'problem' in parsed ? parsed.problem : groupProblem(parsed.parts, 0);
}

/**
 * The variants problems of every text drawn per contact — the message, the caption, the
 * poll question and a template's body parameters — as field errors; `prefix` names the object they sit in.
 */
export function templateFieldProblems(
  texts: {
    message?: string | null;
    caption?: string | null;
    pollData?: { name: string } | null;
    template?: { bodyParameters?: string[] } | null;
  },
  prefix = '',
): Array<[field: string, message: string]> {
  const fields: Array<[string, unknown]> = [
    ['message', texts.message],
    ['caption', texts.caption],
    ['pollData.name', texts.pollData?.name],
    ...(texts.template?.bodyParameters ?? []).map((parameter, index): [string, unknown] => [
      `template.bodyParameters[${index}]`,
      parameter,
    ]),
  ];
  const errors: Array<[string, string]> = [];
  for (const [field, template] of fields) {
    const problem = typeof template === 'string' ? variantProblem(template) : null;
    if (problem) {
      errors.push([`${prefix}${field}`, problem]);
    }
  }
  return errors;
}

/**
 * The template with one variant drawn from each group (uniformly, and again within the drawn
 * variant), its variables left for renderMessage. A template that does not parse (one stored
 * before variants existed, with a lone brace) is returned as it is.
 */
export function drawVariants(template: string, seed: string): string {
  if (!template.includes('|')) {
    return template;
  }
  const parsed = parse(template);
  if ('problem' in parsed) {
    return template;
  }
  const random = new SeededRandom(seed);
  return drawParts(parsed.parts, random);
}

/**
 * Whether some draw renders blank for a contact without data: every part is whitespace, a
 * variable (which a contact may lack) or a group with such a variant.
 */
export function canDrawBlank(template: string): boolean {
  const parsed = parse(template);
  return 'problem' in parsed ? false : partsCanBeBlank(parsed.parts);
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function partsCanBeBlank(parts: Part[]): boolean {
  return parts.every((part) => {
    if (typeof part === 'string') {
      return part.trim() === '';
    }
    if (part.variants.length > 1) {
      return part.variants.some(partsCanBeBlank);
    }
    const only = part.variants[0];
    return only.length === 1 && typeof only[0] === 'string' && VARIABLE.test(only[0]);
  });
}

function parse(template: string): Parsed {
  const stack: Array<{ variants: Part[][]; parts: Part[]; opensAt: number }> = [];
  let parts: Part[] = [];
  let text = '';
  const flush = (): void => {
    if (text) {
      parts.push(text);
      text = '';
    }
  };
  for (let i = 0; i < template.length; i += 1) {
    const char = template[i];
    if (char === '{') {
      flush();
      if (stack.length === MAX_BRACE_NESTING) {
        return { problem: `tem chaves aninhadas em mais de ${MAX_BRACE_NESTING} níveis` };
      }
      stack.push({ variants: [], parts, opensAt: i });
      parts = [];
    } else if (char === '}') {
      const open = stack.pop();
      if (!open) {
        return { problem: `fecha uma chave que não foi aberta (posição ${i + 1})` };
      }
      flush();
      const group: BraceGroup = { variants: [...open.variants, parts] };
      parts = open.parts;
      parts.push(group);
    } else if (char === '|' && stack.length > 0) {
      flush();
      stack[stack.length - 1].variants.push(parts);
      parts = [];
    } else {
      text += char;
    }
  }
  const unclosed = stack[stack.length - 1];
  if (unclosed) {
    return { problem: `abre uma chave que não foi fechada (posição ${unclosed.opensAt + 1})` };
  }
  flush();
  return { parts };
}

function groupProblem(parts: Part[], depth: number): string | null {
  for (const part of parts) {
    if (typeof part === 'string') {
      continue;
    }
    const isVariants = part.variants.length > 1;
    if (!isVariants && part.variants[0].length === 0) {
      return 'tem chaves vazias {}';
    }
    if (isVariants && part.variants.length > MAX_VARIANTS_PER_GROUP) {
      return `um grupo de variantes tem ${part.variants.length} opções; o máximo é ${MAX_VARIANTS_PER_GROUP}`;
    }
    if (isVariants && part.variants.every((variant) => isBlank(variant))) {
      return 'um grupo de variantes não tem nenhuma opção preenchida';
    }
    const inner = isVariants ? depth + 1 : depth;
    if (inner > MAX_VARIANT_DEPTH) {
      return `grupos de variantes aninhados em mais de ${MAX_VARIANT_DEPTH} níveis`;
    }
    for (const variant of part.variants) {
      const problem = groupProblem(variant, inner);
      if (problem) {
        return problem;
      }
    }
  }
  return null;
}

function isBlank(parts: Part[]): boolean {
  return parts.every((part) => typeof part === 'string' && part.trim() === '');
}

function drawParts(parts: Part[], random: SeededRandom): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
    } else if (part.variants.length > 1) {
      out += drawParts(part.variants[random.below(part.variants.length)], random);
    } else {
      out += `{${drawParts(part.variants[0], random)}}`;
    }
  }
  return out;
}

/**
 * Uniform integers from a seed: SHA-256 of the seed, then of each digest in turn, read as
 * 32-bit words. The same seed gives the same sequence on every instance and every Node version.
 */
class SeededRandom {
  private digest: Buffer;
  private offset = 0;

  constructor(seed: string) {
    this.digest = createHash('sha256').update(seed).digest();
  }

  /** An integer in [0, n): the bias of 2^32 mod n is below one in 200 million for n ≤ 20. */
  below(n: number): number {
    if (this.offset === this.digest.length) {
      this.digest = createHash('sha256').update(this.digest).digest();
      this.offset = 0;
    }
    const word = this.digest.readUInt32BE(this.offset);
    this.offset += 4;
    return Math.floor((word / 2 ** 32) * n);
  }
}
