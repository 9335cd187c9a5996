{
  eventType: string,      // Event type identifier (e.g., "workflow.created")
  eventId: string,        // Unique event ID (UUID v4)
  timestamp: string,      // ISO 8601 timestamp
  payload: object,        // Event-specific data
  metadata: object        // Optional metadata
}
