query["payload.execution_id"] = execution_id
query["aggregate_id"] = aggregate_id
