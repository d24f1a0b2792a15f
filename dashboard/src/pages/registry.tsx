// Every page of the dashboard, by the first segment of its hash route, with its label in the navigation. A page is a
// component that reads the route itself (ids, filters) and calls the API through api.ts.
import type { FunctionComponent } from 'preact';
import type { Route } from '../router.ts';

export interface Page {
  /** First path segment ('' for the overview). */
  segment: string;
  /** Navigation label; a page without one is reachable only by link. */
  nav?: string;
  component: FunctionComponent<{ route: Route }>;
}

export const PAGES: Page[] = [];
