/**
 * A message template of a Cloud API business account as Meta lists it
 * (GET /{waba-id}/message_templates), with what a campaign needs to fill it in counted.
 * Meta's templates reference: developers.facebook.com/documentation/business-messaging/whatsapp/templates/
 */
export const TEMPLATE_HEADER_FORMATS = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION'] as const;
export type TemplateHeaderFormat = (typeof TEMPLATE_HEADER_FORMATS)[number];

export interface GatewayTemplate {
  name: string;
  /** Meta's language code, e.g. pt_BR. */
  language: string;
  /** MARKETING, UTILITY or AUTHENTICATION. */
  category: string;
  /** APPROVED, PENDING, REJECTED, PAUSED, DISABLED, … (only APPROVED ones can be sent). */
  status: string;
  /** The template's components exactly as Meta lists them. */
  components: unknown[];
  /** Distinct parameters of the body ({{1}} positional or {{name}} named). */
  bodyParameters: number;
  /** Distinct text parameters of a TEXT header (a media header's one media is `headerFormat`). */
  headerParameters: number;
  headerFormat: TemplateHeaderFormat | null;
}

/** A template as read from Meta, with the id Meta gives it. */
export interface ListedTemplate extends GatewayTemplate {
  metaId: string;
}

/** `{{1}}`, `{{ 2 }}` or `{{first_name}}`: Meta allows positional or named, never both. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

function countParameters(text: unknown): number {
  if (typeof text !== 'string') {
    return 0;
  }
  return new Set(Array.from(text.matchAll(PLACEHOLDER), (match) => match[1])).size;
}

/**
 * Whether the body's parameters are named (`{{first_name}}`) rather than positional: Meta then
 * wants each value sent with its `parameter_name`.
 */
export function usesNamedParameters(template: Pick<GatewayTemplate, 'components'>): boolean {
  const text = componentOf(template.components, 'BODY')?.text;
  return (
    typeof text === 'string' &&
    Array.from(text.matchAll(PLACEHOLDER)).some((match) => !/^\d+$/.test(match[1]))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function componentOf(components: unknown[], type: string): Record<string, unknown> | null {
  const found = components.find(
    (component) =>
      isRecord(component) &&
      typeof component.type === 'string' &&
      component.type.toUpperCase() === type,
  );
  return isRecord(found) ? found : null;
}

function headerFormatOf(header: Record<string, unknown> | null): TemplateHeaderFormat | null {
  const format = typeof header?.format === 'string' ? header.format.toUpperCase() : '';
  return (TEMPLATE_HEADER_FORMATS as readonly string[]).includes(format)
    ? (format as TemplateHeaderFormat)
    : null;
}

/** One entry of Meta's list as a template; null for an entry without a name or language. */
export function templateFromMeta(raw: unknown): ListedTemplate | null {
  if (!isRecord(raw) || typeof raw.name !== 'string' || typeof raw.language !== 'string') {
    return null;
  }
  const components = Array.isArray(raw.components) ? (raw.components as unknown[]) : [];
  const header = componentOf(components, 'HEADER');
  const headerFormat = headerFormatOf(header);
  return {
    metaId: typeof raw.id === 'string' || typeof raw.id === 'number' ? String(raw.id) : '',
    name: raw.name,
    language: raw.language,
    category: typeof raw.category === 'string' ? raw.category : 'UNKNOWN',
    status: typeof raw.status === 'string' ? raw.status : 'UNKNOWN',
    components,
    bodyParameters: countParameters(componentOf(components, 'BODY')?.text),
    headerParameters: headerFormat === 'TEXT' ? countParameters(header?.text) : 0,
    headerFormat,
  };
}
