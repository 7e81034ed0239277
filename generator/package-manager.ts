/**
 * Which package manager a scaffolded project is installed and run with: `--package-manager npm|pnpm|yarn`, else the
 * one that runs this command (`pnpm create mcp-server` / `yarn create mcp-server` set `npm_config_user_agent` to
 * `pnpm/9.1.0 npm/? node/v20.11.0 linux x64`, `yarn/1.22.22 npm/? node/…`; npm to `npm/10.8.2 node/…`), else npm.
 */
export const PACKAGE_MANAGERS = ["npm", "pnpm", "yarn"] as const;
export type PackageManager = (typeof PACKAGE_MANAGERS)[number];

/** The package manager named by a user agent's first product token, when it is one of ours. */
export function detectPackageManager(userAgent: string | undefined): PackageManager | undefined {
  const product = /^\s*([a-z]+)\//i.exec(userAgent ?? "")?.[1]?.toLowerCase();
  return PACKAGE_MANAGERS.find((pm) => pm === product);
}

/** The flag's value if given (refusing an unknown one with the allowed list), else the detected one, else npm. */
export function resolvePackageManager(flag: string | undefined, userAgent: string | undefined): { packageManager: PackageManager } | { error: string } {
  if (flag !== undefined) {
    const pm = PACKAGE_MANAGERS.find((p) => p === flag);
    return pm ? { packageManager: pm } : { error: `unknown package manager "${flag}"; choose one of: ${PACKAGE_MANAGERS.join(", ")}` };
  }
  return { packageManager: detectPackageManager(userAgent) ?? "npm" };
}

export interface PackageManagerCommands {
  /** The executable (with `.cmd` on Windows, for spawn without a shell). */
  bin: string;
  /** Arguments of the install the scaffolder runs. */
  install: string[];
  /**
   * The install after our packages may have been published anew (the published packages of this command's version,
   * or an upgrade): npm asks the registry again for package metadata it has cached, where `--prefer-offline` would take
   * a list of versions from before the release and fail with ETARGET for the new one.
   */
  installFresh: string[];
  /** What a user types: `npm install`, `pnpm install`, `yarn`. */
  installLine: string;
  /**
   * The install of a clean checkout, exactly as the lock file says, failing when it is missing or out of date with
   * package.json: `npm ci`, `pnpm install --frozen-lockfile`, `yarn install --frozen-lockfile` (CI, images).
   */
  frozenLine: string;
  /** `npm run`, `pnpm run`, `yarn run`: followed by a script name. */
  run: string;
  /** `npm test`, `npm start` etc.: the scripts every package manager runs without `run`. */
  test: string;
  start: string;
  /** `npm start -- --port 3000` passes arguments after `--`; pnpm and yarn pass them as they are. */
  argsSeparator: string;
}

export function packageManagerCommands(pm: PackageManager, platform: NodeJS.Platform = process.platform): PackageManagerCommands {
  const bin = platform === "win32" ? `${pm}.cmd` : pm;
  switch (pm) {
    case "npm":
      return {
        bin,
        install: ["install", "--no-audit", "--no-fund", "--prefer-offline"],
        installFresh: ["install", "--no-audit", "--no-fund", "--prefer-online"],
        installLine: "npm install",
        frozenLine: "npm ci",
        run: "npm run",
        test: "npm test",
        start: "npm start",
        argsSeparator: "-- ",
      };
    case "pnpm":
      return {
        bin,
        install: ["install"],
        installFresh: ["install"],
        installLine: "pnpm install",
        frozenLine: "pnpm install --frozen-lockfile",
        run: "pnpm run",
        test: "pnpm test",
        start: "pnpm start",
        argsSeparator: "",
      };
    case "yarn":
      return {
        bin,
        install: ["install"],
        installFresh: ["install"],
        installLine: "yarn install",
        frozenLine: "yarn install --frozen-lockfile",
        run: "yarn run",
        test: "yarn test",
        start: "yarn start",
        argsSeparator: "",
      };
  }
}
