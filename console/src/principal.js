import { createContext } from 'preact';

// Principal is who the pasted token acts for (GET /api/me): the pages and
// the navigation show only what that scope may read.
export const Principal = createContext({ admin: false, partnerId: '' });
