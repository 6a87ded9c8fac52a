// How many of the pool's blocks, and of its payments, the pool page shows at a time (the pool
// API's pageSize). Apart from the page, which loads uPlot, so that tests can read it.
export const PAGE_SIZE = 20;
