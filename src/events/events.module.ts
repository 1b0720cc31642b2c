import { defineModule } from '../api/module';
import { eventsOperations } from './events.operations';
import { EventsService } from './events.service';

/** The change log's read API. */
export const eventsModule = defineModule({
  key: 'events',
  folder: 'events',
  layer: 'feature',
  reaches: ['customers'],
  tables: [],
  build: () => new EventsService(),
  operations: eventsOperations,
});
