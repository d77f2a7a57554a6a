import { ListNotificationsHandler } from './list-notifications/list-notifications.handler.js';

export const NotificationQueryHandlers = [ListNotificationsHandler];
