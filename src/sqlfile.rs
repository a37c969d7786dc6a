//! SQL files split into statements at an explicit separator line.
