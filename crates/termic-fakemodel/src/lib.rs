//! A scripted local model server for driving real agent CLIs offline.
