// Every page of the dashboard, by the first segment of its hash route, with its label in the navigation. A page is a
// component that reads the route itself (ids, filters) and calls the API through api.ts.
import type { FunctionComponent } from 'preact';
import type { Route } from '../router.ts';
import { AccountPage } from './account/account-page.tsx';
import { ConversationsPage } from './conversations/conversations.tsx';
import { KeysPage } from './keys/index.tsx';
import { LlmPage } from './llm/index.tsx';
import { LogsPage } from './logs/logs.tsx';
import { McpPage } from './mcp/index.tsx';
import { OverviewPage } from './overview/overview.tsx';
import { UsagePage } from './usage/usage.tsx';

export interface Page {
  /** First path segment ('' for the overview). */
  segment: string;
  /** Navigation label; a page without one is reachable only by link. */
  nav?: string;
  component: FunctionComponent<{ route: Route }>;
}

export const PAGES: Page[] = [
  { segment: '', nav: 'Overview', component: OverviewPage },
  { segment: 'account', nav: 'Account', component: AccountPage },
  { segment: 'mcp', nav: 'MCP proxies', component: McpPage },
  { segment: 'llm', nav: 'LLM proxies', component: LlmPage },
  { segment: 'keys', nav: 'Client keys', component: KeysPage },
  { segment: 'logs', nav: 'Logs', component: LogsPage },
  { segment: 'usage', nav: 'Usage', component: UsagePage },
  { segment: 'conversations', nav: 'Conversations', component: ConversationsPage },
];
