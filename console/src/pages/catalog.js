// The event catalog (GET /api/event-types): every event type with its
// schema and example, read once per page load (it is embedded in the API
// and never changes while it runs).
import { get } from '../api.js';

let catalog = null;

// eventCatalog resolves to the catalog's types in its order; a failed
// read is not kept, so the next caller asks again.
export function eventCatalog() {
  if (!catalog) {
    catalog = get('/api/event-types').then(
      (res) => res.eventTypes,
      (err) => {
        catalog = null;
        throw err;
      },
    );
  }
  return catalog;
}
