// Package objects is the one object store of StreamOps: where task
// exports and reports and the API's large event exports go. Store is the
// interface its consumers take; s3bucket.Bucket is the implementation on
// AWS (one bucket, server-side encrypted, optionally linked with a
// presigned GET; a package of its own so only its users link the S3
// client), Files the one of the local stack (a directory, written atomically).
//
// What must not live here: what is exported or how it is formatted (packages
// task and history), where the configuration comes from (packages app and
// taskaws.Backends).
package objects
