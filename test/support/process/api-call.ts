import type { RunningService } from './service-process';

/** A JSON answer of a running service, parsed. */
export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** One /v1 call to a running service process, as `token` at `location`, with a JSON body if given. */
export async function apiCall(
  service: RunningService,
  as: { token: string; location: string },
  method: string,
  route: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const response = await fetch(`${service.baseUrl}${route}`, {
    method,
    headers: {
      Authorization: `Bearer ${as.token}`,
      'Platform-Restaurant-External-ID': as.location,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
