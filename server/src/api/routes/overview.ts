// Placeholder: filled by the module's owner.
import type { Router } from '../../http/router.ts';
import type { Services } from '../../services.ts';

export function registerOverviewRoutes(_r: Router, _s: Services): void {}
