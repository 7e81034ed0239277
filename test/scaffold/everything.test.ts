// The everything template (the conformance fixture) × {both, stdio, http}: scaffold, install, build, npm test; generate idempotent;
// the official conformance suite: --requirements 2025-11-25 and 2026-07-28 (scored), and the tasks extension's scenarios of --suite all.
import { projectSuite } from "./projects.js";

projectSuite("everything", { conformance: ["2025-11-25", "2026-07-28"], tasksScenarios: true });
