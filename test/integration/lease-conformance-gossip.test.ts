// The backend conformance suite (test/helpers/conformance/cases.ts) against the gossip backend. One
// file per backend so vitest runs the backends side by side; a new backend adds one such file.
import { describeConformance } from '../helpers/conformance/cases.ts';
import { gossipDriver } from '../helpers/conformance/gossip.ts';

describeConformance(gossipDriver);
