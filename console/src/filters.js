import { get } from './api.js';

// The filters of GET /api/events (seed 001's ReplayFilter) are not listed
// here: the API derives them from store.ReplayFilter's fields into its
// served OpenAPI document, and loadFilterFields reads them from there, so
// a filter added to the API appears on the Events and Replays pages
// without a change to the console.

// wording is how the pages word and order the filters they know; a filter
// the API has and this does not is labelled from its name, with its
// parameter's example as placeholder, after these.
const wording = [
  { name: 'event_types', label: 'Types', placeholder: 'workflow.failed,task.failed' },
  { name: 'exclude_event_types', label: 'Exclude types', placeholder: 'webhook.received' },
  { name: 'aggregate_id', label: 'Aggregate', placeholder: 'wf-… or task-…' },
  { name: 'execution_id', label: 'Execution', placeholder: 'webhook event id' },
  { name: 'event_ids', label: 'Event ids', placeholder: 'evt-…,evt-…' },
  { name: 'user_id', label: 'User' },
  { name: 'service_name', label: 'Service', placeholder: 'api-gateway' },
  { name: 'start_time', label: 'From', placeholder: '2026-01-04T01:00:00Z' },
  { name: 'end_time', label: 'To', placeholder: '2026-01-04T02:00:00Z' },
];

// notFilters are the query parameters of GET /api/events that page it.
const notFilters = ['limit', 'cursor'];

// filterFieldsOf reads the filter fields from an OpenAPI document: GET
// /api/events' shared query parameters but the paging ones, each
// {name, label, placeholder, list} (list: the parameter is an array,
// comma-separated in the page's URL).
export function filterFieldsOf(doc) {
  const shared = doc.components.parameters;
  const params = doc.paths['/api/events'].get.parameters
    .map((p) => (p.$ref ? shared[p.$ref.replace('#/components/parameters/', '')] : p))
    .filter((p) => p && p.in === 'query' && !notFilters.includes(p.name));
  const fields = params.map((p) => {
    const known = wording.find((w) => w.name === p.name);
    return {
      name: p.name,
      label: known ? known.label : p.name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
      placeholder: known ? known.placeholder : p.example === undefined ? '' : String(p.example),
      list: (p.schema || {}).type === 'array',
    };
  });
  const rank = (f) => {
    const i = wording.findIndex((w) => w.name === f.name);
    return i < 0 ? wording.length : i;
  };
  return fields.map((f, i) => [f, i]).sort(([a, i], [b, j]) => rank(a) - rank(b) || i - j).map(([f]) => f);
}

let loaded;

// loadFilterFields fetches the served document once per page load.
export function loadFilterFields() {
  if (!loaded) {
    loaded = get('/api/openapi.json').then(filterFieldsOf, (e) => {
      loaded = undefined;
      throw e;
    });
  }
  return loaded;
}
