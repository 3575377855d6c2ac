/** The public results page's islands: all that its bundle (static/islands-results.js) ships. */
import { Answer } from "./Answer.tsx";
import { Results } from "./Results.tsx";
import { SearchBox } from "./SearchBox.tsx";

export const RESULTS_ISLANDS = { Answer, Results, SearchBox } as const;
