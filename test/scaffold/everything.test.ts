// The everything template (the conformance fixture) × {both, stdio, http}: scaffold, install, build, npm test; generate idempotent.
import { projectSuite } from "./projects.js";

projectSuite("everything", { conformance: ["2025-11-25", "2026-07-28"] });
