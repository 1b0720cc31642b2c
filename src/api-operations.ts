import type { Operation } from './api/operation';
import { MODULES, type ApiServices } from './modules';

export type { ApiServices } from './modules';

/**
 * Every /v1 operation, from the modules' list (src/modules.ts): app.ts
 * mounts them, the OpenAPI document renders them, and the scope table and
 * scope tests are derived from them. The busiest come first, as Express
 * tries routes in order.
 */
export const API_OPERATIONS: readonly Operation<ApiServices>[] = MODULES.flatMap((module) => module.operations as readonly Operation<ApiServices>[]);
