/** The Node lines the CI lanes run besides the machine's own. */
export const LINES: readonly string[];
/** The system test files each lane runs. */
export const LANE_FILES: readonly string[];
