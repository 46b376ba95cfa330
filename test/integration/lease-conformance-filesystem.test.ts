// The backend conformance suite (test/helpers/conformance/cases.ts) against the filesystem backend. One
// file per backend so vitest runs the backends side by side; a new backend adds one such file.
import { describeConformance } from '../helpers/conformance/cases.ts';
import { filesystemDriver } from '../helpers/conformance/filesystem.ts';

describeConformance(filesystemDriver);
