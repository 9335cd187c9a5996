{
  eventType: "workflow.created",
  schemaVersion: "2.0.0",
  // ...
}
