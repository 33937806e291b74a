import { STATUS_CODES } from 'node:http';

/** The error body of docs/API-RULES.md §1. */
export interface ErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message: string;
  path: string;
}

export function errorBody(status: number, message: string, path: string): ErrorBody {
  return {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    path,
  };
}
