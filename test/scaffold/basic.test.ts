// The basic template × {both, stdio, http}: scaffold, install, build, npm test; generate idempotent; type safety; mutations;
// the Dockerfile run without docker, SIGTERM during a slow request.
import { projectSuite } from "./projects.js";

projectSuite("basic", { typeSafety: true, mutations: true, deploy: true });
