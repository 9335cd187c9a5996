// Package s3bucket is the objects.Store on Amazon S3, with its SDK client.
// It is a package of its own so that only the functions that write to S3
// (task-processor, api) link the S3 client: the SDK's service packages
// initialise their endpoint tables and schemas whether called or not.
package s3bucket
