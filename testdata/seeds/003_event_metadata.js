{
  metadata: {
    source: string,           // Service that published event
    userId: string | null,    // User who triggered event (if applicable)
    apiVersion: string,       // API version
    processorId: string,      // Worker instance ID
    traceId: string,          // Distributed tracing ID
    correlationId: string     // Request correlation ID
  }
}
