import { evaluate } from "./eval.ts"; await evaluate();
