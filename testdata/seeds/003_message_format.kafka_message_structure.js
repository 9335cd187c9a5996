{
  key: string,              // Partition key (workflowId or taskId)
  value: string,            // JSON-serialized event object
  timestamp: number,        // Unix timestamp (milliseconds)
  headers: {                // Optional headers
    "content-type": "application/json",
    "schema-version": "1.0.0"
  }
}
