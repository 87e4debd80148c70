import data from "../../../rules/hosted-api.json" with { type: "json" };
import { compileClassifier, type Classifier } from "./classify.ts";
import { loadRuleTable, type RuleTable } from "./load.ts";

/** The published hosted-API table, validated at module load: a bad table fails start-up loudly. */
export const hostedApiTable: RuleTable = loadRuleTable(data, "rules/hosted-api.json");

/** Compiled once per isolate; classifying a request never scans the rule list. */
export const hostedApiClassifier: Classifier = compileClassifier(hostedApiTable);
