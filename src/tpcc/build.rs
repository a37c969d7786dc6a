//! Builds, checks and deletes a TPROC-C schema on any [`super::schema::SchemaDb`].
