// The basic template × {both, stdio, http}: scaffold, install, build, npm test; generate idempotent; type safety; mutations.
import { projectSuite } from "./projects.js";

projectSuite("basic", { typeSafety: true, mutations: true });
