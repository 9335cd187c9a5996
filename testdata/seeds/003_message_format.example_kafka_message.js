{
  key: "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
  value: JSON.stringify({
    eventType: "workflow.created",
    eventId: "evt-123",
    timestamp: "2026-01-04T01:09:27Z",
    payload: { /* ... */ }
  }),
  timestamp: 1735949367123,
  headers: {
    "content-type": "application/json",
    "schema-version": "1.0.0"
  }
}
